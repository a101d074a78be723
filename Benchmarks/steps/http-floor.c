// The floor of an open-model HTTP client on this machine: RATE GETs a
// second for SECONDS over CONNS keep-alive connections to 127.0.0.1:PORT,
// one thread, epoll_pwait2 to each next due moment, nothing kept and
// nothing checked (every response must be the same size: a static file).
// load-bench.sh runs it beside promise-run and k6: its CPU per request is
// what any client pays here (the loopback send that wakes the server, the
// read, the waits), so the CPU above it is a tool's own.
//
//   gcc -O2 -o http-floor http-floor.c && ./http-floor PORT 5000 10 64 /small.txt [tick]
//
// With `tick`, responses are read only at the schedule's moments: the
// thread sleeps to each next due moment without waking for a response
// (clock_nanosleep), then takes what arrived (epoll_pwait2 with no wait).
// One wake a request instead of two: what coalescing a response's wake
// with the next send would save (a client doing so must take its
// latencies from the kernel's receive timestamps, or they grow by up to
// one interval).
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
static long nowns(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1000000000L+t.tv_nsec;}
int main(int argc,char**argv){
  int port=atoi(argv[1]); long rate=atol(argv[2]), secs=atol(argv[3]); int conns=atoi(argv[4]); const char*path=argv[5]; int tick=argc>6&&!strcmp(argv[6],"tick");
  char req[512]; int reqlen=snprintf(req,sizeof req,"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",path);
  struct sockaddr_in a={.sin_family=AF_INET,.sin_port=htons(port)}; inet_pton(AF_INET,"127.0.0.1",&a.sin_addr);
  int ep=epoll_create1(0); int *fd=malloc(conns*sizeof(int)); long *pending=calloc(conns,sizeof(long)); int *busy=calloc(conns,sizeof(int));
  long resplen=0; char buf[65536];
  for(int i=0;i<conns;i++){fd[i]=socket(AF_INET,SOCK_STREAM,0); if(connect(fd[i],(void*)&a,sizeof a)){perror("connect");return 1;}
    int one=1; setsockopt(fd[i],IPPROTO_TCP,TCP_NODELAY,&one,sizeof one);
    if(i==0){ write(fd[0],req,reqlen); long got=0; long need=-1; char all[65536];
      while(need<0||got<need){ long n=read(fd[0],all+got,sizeof all-got); if(n<=0)return 1; got+=n; all[got]=0;
        char*h=strstr(all,"\r\n\r\n"); if(h&&need<0){char*cl=strcasestr(all,"Content-Length:"); need=(h+4-all)+atol(cl+15);} }
      resplen=need; }
    struct epoll_event e={.events=EPOLLIN,.data.u32=i}; epoll_ctl(ep,EPOLL_CTL_ADD,fd[i],&e);}
  long total=rate*secs, sent=0, done=0, start=nowns(); int *idle=malloc(conns*sizeof(int)); int nidle=conns; for(int i=0;i<conns;i++)idle[i]=i;
  struct epoll_event ev[64];
  while(done<total){
    long now=nowns();
    while(sent<total && start+sent*1000000000L/rate<=now && nidle>0){int c=idle[--nidle]; busy[c]=1; pending[c]=resplen; write(fd[c],req,reqlen); sent++;}
    long timeout=-1; if(sent<total && nidle>0){long d=start+sent*1000000000L/rate-nowns(); timeout=d<0?0:d;}
    struct timespec ts={timeout/1000000000L,timeout%1000000000L};
    int n;
    if(tick && timeout>0){clock_nanosleep(CLOCK_MONOTONIC,0,&ts,NULL); struct timespec zero={0,0}; n=syscall(SYS_epoll_pwait2,ep,ev,64,&zero,NULL,0);}
    else n=syscall(SYS_epoll_pwait2,ep,ev,64,timeout<0?NULL:&ts,NULL,0);
    for(int k=0;k<n;k++){int c=ev[k].data.u32; long r=read(fd[c],buf,sizeof buf); if(r>0){pending[c]-=r; if(pending[c]<=0){busy[c]=0; idle[nidle++]=c; done++;}}}
  }
  printf("%ld %ld\n",sent,done);
}
